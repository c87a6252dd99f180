// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "only trace-event PMUs attach probes"
//
// A PMU whose events are not trace events that attaches a probe: nothing would
// release it.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init(&self, event: EventInit<'_, Self>) -> Result<Prepared<Self>> {
        event.init_kprobe(Some(c_str!("vfs_read")), false)
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
