// SPDX-License-Identifier: GPL-2.0
// misuse-check: builds
//
// The control of the other cases: add and del, the rest left to the defaults.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init<'a>(&self, event: EventInit<'a, Self>) -> Result<Prepared<'a, Self>> {
        event.accept(())
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
