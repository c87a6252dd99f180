// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "cannot initialize a tuple struct which contains private fields"
//
// A probe PMU that makes the proof of a probe without attaching one.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, _event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        Ok(Probe(core::marker::PhantomData))
    }
}
