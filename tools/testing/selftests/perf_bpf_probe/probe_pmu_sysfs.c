// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs ABI of the kprobe and uprobe dynamic PMUs, as perf and libbpf
 * read it: a dynamic type number and the format of the config bits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../kselftest_harness.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static int read_attr(const char *pmu, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PMU_DIR "/%s/%s", pmu, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The names in PMU_DIR/<pmu>/format, sorted and joined with spaces. */
static int format_names(const char *pmu, char *buf, size_t len)
{
	struct dirent **names;
	char path[256];
	int i, n;

	snprintf(path, sizeof(path), PMU_DIR "/%s/format", pmu);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			if (buf[0])
				strncat(buf, " ", len - strlen(buf) - 1);
			strncat(buf, names[i]->d_name, len - strlen(buf) - 1);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* A dynamic PMU gets a type number past the fixed PERF_TYPE_* values. */
static void check_dynamic_type(struct __test_metadata *_metadata, const char *pmu)
{
	char buf[64], *end;
	long type;

	ASSERT_EQ(0, read_attr(pmu, "type", buf, sizeof(buf)));
	type = strtol(buf, &end, 10);
	EXPECT_STREQ("\n", end);
	EXPECT_GE(type, PERF_TYPE_MAX);
}

TEST(kprobe_type)
{
	check_dynamic_type(_metadata, "kprobe");
}

TEST(kprobe_format)
{
	char buf[256];

	ASSERT_EQ(0, format_names("kprobe", buf, sizeof(buf)));
	EXPECT_STREQ("retprobe", buf);
	ASSERT_EQ(0, read_attr("kprobe", "format/retprobe", buf, sizeof(buf)));
	EXPECT_STREQ("config:0\n", buf);
}

TEST(uprobe_type)
{
	check_dynamic_type(_metadata, "uprobe");
}

TEST(uprobe_format)
{
	char buf[256];

	ASSERT_EQ(0, format_names("uprobe", buf, sizeof(buf)));
	EXPECT_STREQ("ref_ctr_offset retprobe", buf);
	ASSERT_EQ(0, read_attr("uprobe", "format/retprobe", buf, sizeof(buf)));
	EXPECT_STREQ("config:0\n", buf);
	ASSERT_EQ(0, read_attr("uprobe", "format/ref_ctr_offset", buf, sizeof(buf)));
	EXPECT_STREQ("config:32-63\n", buf);
}

/* perf and libbpf read the type from sysfs and pass it to perf_event_open. */
TEST(types_differ)
{
	char kprobe[64], uprobe[64];

	ASSERT_EQ(0, read_attr("kprobe", "type", kprobe, sizeof(kprobe)));
	ASSERT_EQ(0, read_attr("uprobe", "type", uprobe, sizeof(uprobe)));
	EXPECT_STRNE(kprobe, uprobe);
}

TEST_HARNESS_MAIN
