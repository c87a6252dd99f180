// SPDX-License-Identifier: GPL-2.0
// misuse-check: builds
//
// A control of the trace-event cases: a trace-event PMU with the default add and
// del, as the kprobe and uprobe PMUs have.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }
}
