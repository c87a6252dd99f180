// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "method `del` is not a member of trait `ProbePmu`"
//
// A probe PMU with a del of its own: the event would stay on the trace event's
// per-CPU list after del, and be linked again at the next add.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.kprobe(Some(c_str!("vfs_read")), false)
    }

    fn del(&self, _event: &Event, _data: &(), _flags: u32) {}
}
