// SPDX-License-Identifier: GPL-2.0

#include <linux/module.h>

#ifdef CONFIG_MODULES
bool rust_helper_module_is_live(struct module *mod)
{
	return module_is_live(mod);
}
#endif

bool rust_helper_module_is_coming(struct module *mod)
{
	return module_is_coming(mod);
}

bool rust_helper_try_module_get(struct module *module)
{
	return try_module_get(module);
}
