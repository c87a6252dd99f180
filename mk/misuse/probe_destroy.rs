// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "method `destroy` is not a member of trait `ProbePmu`"
//
// A probe PMU with a destroy of its own: the probe's release would be lost.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.kprobe(Some(c_str!("vfs_read")), false)
    }

    fn destroy(&self, _event: &Event, _data: &()) {}
}
