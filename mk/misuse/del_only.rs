// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "not all trait items implemented, missing: `add`"
//
// A PMU with del but no add: add has no default (the trace events' one, which
// once was, would use the trace event such an event does not have).

struct P;

#[vtable]
impl Pmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = ();

    fn event_init<'a>(&self, event: EventInit<'a, Self>) -> Result<Prepared<'a, Self>> {
        event.accept(())
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
