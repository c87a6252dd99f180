// SPDX-License-Identifier: GPL-2.0
// misuse-check: builds
//
// A control of the trace-event cases: a trace-event PMU with both add and del of
// its own (its events are then on no trace event list, and get no sample).

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
