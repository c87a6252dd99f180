// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "type mismatch resolving `<P as Pmu>::EventData == ()`"
//
// A trace-event PMU whose events would have data: only init_kprobe() and
// init_uprobe() prepare its events, and they give them none (the adapter of a
// trace-event PMU has no data to hand to an overridden add or del).

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = u64;

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }
}
