// SPDX-License-Identifier: GPL-2.0

#include <linux/sysfs.h>

void rust_helper_sysfs_attr_init(struct attribute *attr)
{
	sysfs_attr_init(attr);
}
