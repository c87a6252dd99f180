// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "not all trait items implemented, missing: `del`"
//
// A PMU with add but no del: nothing would unlink what add links.

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
}
