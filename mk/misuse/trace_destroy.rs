// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "a trace-event PMU's destroy is its probe's"
//
// A trace-event PMU with a destroy of its own: the probe's release would be lost.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }

    fn destroy(&self, _event: &Event, _data: &()) {}
}
