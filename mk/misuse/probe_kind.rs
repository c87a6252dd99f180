// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "unit variant `Kprobe` is private"
//
// A forged kind of probe, with which safe code could call the callbacks of a probe PMU's
// adapter (`Pmu::destroy`, `Pmu::add`), which release or link an event's probe, on an event
// that holds none.

use kernel::perf::probe::ProbeKind;

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        let _forged = ProbeKind::Kprobe;
        event.kprobe(None, false)
    }
}
