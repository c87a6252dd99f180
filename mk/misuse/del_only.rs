// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "a PMU whose events are not trace events must implement add and del"
//
// A PMU whose events are not trace events with del but no add: the default add,
// perf_trace_add(), would use the trace event such an event does not have.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.accept(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
