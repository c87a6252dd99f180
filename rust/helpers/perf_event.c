// SPDX-License-Identifier: GPL-2.0

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/perf_event.h>

bool rust_helper_perfmon_capable(void)
{
	return perfmon_capable();
}

/*
 * A PMU registered from Rust is unregistered only when none of its events can
 * exist (see rust/kernel/perf/registration.rs): when its module is being unloaded, which
 * no event holds any more, or while the module initialises, when its
 * event_init refuses every event.  Built-in PMUs (@mod NULL) stay registered.
 */
bool rust_helper_perf_pmu_module_may_unregister(struct module *mod)
{
#ifdef CONFIG_MODULES
	enum module_state state;

	if (!mod)
		return false;
	state = READ_ONCE(mod->state);
	return state == MODULE_STATE_GOING || state == MODULE_STATE_COMING;
#else
	return false;
#endif
}

bool rust_helper_perf_pmu_module_is_coming(struct module *mod)
{
	return mod && module_is_coming(mod);
}

/*
 * Keeps @mod loaded for good, so that a PMU of it stays registered; fails
 * when @mod is already going away.
 */
bool rust_helper_perf_pmu_module_pin(struct module *mod)
{
	return try_module_get(mod);
}

/* Whether the code at @addr is built into the kernel, not in a module. */
bool rust_helper_perf_pmu_builtin_code(unsigned long addr)
{
	return !is_module_text_address(addr);
}

#ifdef CONFIG_RUST_PERF_ABSTRACTIONS
void rust_helper_perf_event_add_count(struct perf_event *event, u64 delta)
{
	local64_add(delta, &event->count);
}
#endif
