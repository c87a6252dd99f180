// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "method `add` is not a member of trait `ProbePmu`"
//
// A probe PMU with an add of its own: perf_trace_del() would unlink an entry
// perf_trace_add() never linked.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.kprobe(Some(c_str!("vfs_read")), false)
    }

    fn add(&self, _event: &Event, _data: &(), _flags: u32) -> Result {
        Ok(())
    }
}
