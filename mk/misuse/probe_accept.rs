// SPDX-License-Identifier: GPL-2.0
// misuse-check: refused "cannot move out of dereference of `kernel::perf::probe::ProbeInit<"
//
// A probe PMU that accepts its event as a PMU does, with data that says it holds
// a kprobe, without attaching one: perf_trace_add() would use the trace event the
// event does not have, and its destroy would release a probe it never held.

struct P;

#[vtable]
impl ProbePmu for P {
    const NAME: &'static CStr = c_str!("misuse");

    fn event_init<'a>(&self, event: ProbeInit<'a, Self>) -> Result<Probe<'a>> {
        event.accept(probe::ProbeKind::Kprobe)?;
        Err(EINVAL)
    }
}
