// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "a trace-event PMU implements both add and del, or neither"
//
// A trace-event PMU with its own del but perf_trace_add(): the event would stay on
// the trace event's per-CPU list after del, and be added again at the next add.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    const TRACE_EVENTS: bool = true;
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
