// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "type `EventData` is not a member of trait `ProbePmu`"
//
// A probe PMU whose events would have data: their data is the probe they hold,
// which the adapter keeps.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");
    type EventData = u64;

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.kprobe(Some(c_str!("vfs_read")), false)
    }
}
