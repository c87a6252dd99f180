// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "the events of a trace-event PMU must hold a probe"
//
// A trace-event PMU that accepts an event without a probe: perf_trace_add()
// would use the trace event the event does not have.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.accept(())
    }
}
