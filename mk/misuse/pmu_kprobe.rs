// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "no method named `kprobe` found"
//
// A PMU that is not a probe PMU attaches a probe: only ProbeInit has kprobe().

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init<'a>(&self, event: EventInit<'a, Self>) -> Result<Prepared<'a, Self>> {
        event.kprobe(Some(c_str!("vfs_read")), false)?;
        event.accept(())
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
