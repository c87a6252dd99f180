// SPDX-License-Identifier: GPL-2.0
// misuse-check: builds
//
// The control of the probe cases: a probe PMU, as the kprobe and uprobe PMUs
// are.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.kprobe(Some(c_str!("vfs_read")), false)
    }
}
