// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "not all trait items implemented, missing: `add`, `del`"
//
// A PMU without add and del: no default serves.

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init<'a>(&self, event: EventInit<'a, Self>) -> Result<Prepared<'a, Self>> {
        event.accept(())
    }
}
