// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "lifetime may not live long enough"
//
// A PMU that keeps the prepared event of one event_init, to return it for
// another event: a Prepared event does not outlive its call.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init<'a>(&self, event: EventInit<'a, Self>) -> Result<Prepared<'a, Self>> {
        let kept: Prepared<'static, Self> = event.accept(())?;
        Ok(kept)
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
