// SPDX-License-Identifier: GPL-2.0

//! Performance events.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! A PMU (a source of perf events) written in Rust implements [`Pmu`] and is registered with the
//! perf core by a [`Registration`]. Its callbacks borrow the events they act on as [`Event`]s.
//!
//! # Examples
//!
//! A PMU whose events count nothing, with one format attribute:
//!
//! ```
//! use kernel::c_str;
//! use kernel::perf::{Event, FormatAttribute, Pmu, Registration};
//! use kernel::prelude::*;
//!
//! struct Idle;
//!
//! #[vtable]
//! impl Pmu for Idle {
//!     const NAME: &'static CStr = c_str!("rust_doctest_idle");
//!     const FORMAT: &'static [FormatAttribute] =
//!         &[FormatAttribute::new(c_str!("level"), c_str!("config:0-3"))];
//!
//!     fn event_init(event: &Event) -> Result {
//!         if event.attr_type() != event.pmu_type() {
//!             return Err(ENOENT);
//!         }
//!         Ok(())
//!     }
//!
//!     fn add(_event: &Event, _flags: u32) -> Result {
//!         Ok(())
//!     }
//!
//!     fn del(_event: &Event, _flags: u32) {}
//! }
//!
//! let pmu = KBox::pin_init(Registration::<Idle>::new(None), GFP_KERNEL)?;
//! // Dynamic PMUs get a type number past the fixed `PERF_TYPE_*` ones.
//! assert!(pmu.pmu_type() >= kernel::bindings::perf_type_id_PERF_TYPE_MAX);
//! drop(pmu);
//! # Ok::<(), Error>(())
//! ```

use crate::{
    bindings,
    error::{code::*, from_result, to_result, Error, Result, VTABLE_DEFAULT_ERROR},
    ffi::{c_char, c_int},
    prelude::*,
    str::CStr,
    types::Opaque,
};
use core::{marker::PhantomData, ops::Deref, ptr::NonNull};

/// Returns whether the current task may monitor the system with perf.
///
/// This is the C `perfmon_capable()`: true when the task has `CAP_PERFMON` or `CAP_SYS_ADMIN`
/// in the initial user namespace. As with every capability check, a successful one marks the
/// task as having used a privilege.
///
/// # Examples
///
/// Kernel threads, the KUnit runner among them, hold every capability:
///
/// ```
/// assert!(kernel::perf::perfmon_capable());
/// ```
pub fn perfmon_capable() -> bool {
    // SAFETY: `perfmon_capable` only reads the credentials of the current task, which exist in
    // any context that can call into Rust.
    unsafe { bindings::perfmon_capable() }
}

/// Returns whether the current task has `CAP_SYS_ADMIN` in the initial user namespace.
///
/// # Examples
///
/// ```
/// assert!(kernel::perf::sys_admin_capable());
/// ```
pub fn sys_admin_capable() -> bool {
    // The capability numbers are small constants of the user-space ABI.
    const CAP_SYS_ADMIN: i32 = bindings::CAP_SYS_ADMIN as i32;
    // SAFETY: `capable` only reads the credentials of the current task, which exist in any
    // context that can call into Rust.
    unsafe { bindings::capable(CAP_SYS_ADMIN) }
}

/// The context in which the perf core schedules the events of a PMU.
///
/// Corresponds to the C `enum perf_event_task_context`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskContext {
    /// The PMU has no per-task events: they can only be opened per CPU.
    Invalid,
    /// Events are scheduled with the hardware PMUs'.
    Hardware,
    /// Events are scheduled with the software PMUs' (they never fail to be added).
    Software,
}

impl TaskContext {
    const fn as_raw(self) -> c_int {
        match self {
            Self::Invalid => bindings::perf_event_task_context_perf_invalid_context,
            Self::Hardware => bindings::perf_event_task_context_perf_hw_context,
            Self::Software => bindings::perf_event_task_context_perf_sw_context,
        }
    }
}

/// A perf event, borrowed in a callback of its PMU.
///
/// Wraps the kernel's [`struct perf_event`].
///
/// # Invariants
///
/// `self.0` is a valid `struct perf_event` that the perf core keeps alive and does not free
/// while the reference is in use.
///
/// [`struct perf_event`]: srctree/include/linux/perf_event.h
#[repr(transparent)]
pub struct Event(Opaque<bindings::perf_event>);

impl Event {
    /// Creates a reference to an [`Event`] from a valid pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must point at a valid `struct perf_event` that stays alive, and whose `attr` and
    /// `pmu` do not change, for the lifetime `'a`; this holds in the callbacks of its PMU.
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // CAST: `Self` is a `repr(transparent)` wrapper around `bindings::perf_event`.
        let ptr = ptr.cast::<Self>();
        // SAFETY: By the function requirements the pointer is valid for `'a`.
        unsafe { &*ptr }
    }

    /// Returns a raw pointer to the C `struct perf_event`.
    pub fn as_raw(&self) -> *mut bindings::perf_event {
        self.0.get()
    }

    fn attr(&self) -> &bindings::perf_event_attr {
        // SAFETY: By the type invariants the event is valid, and its attributes do not change
        // while a PMU callback runs.
        unsafe { &(*self.as_raw()).attr }
    }

    /// Returns the type the event was opened with (`perf_event_attr::type`).
    pub fn attr_type(&self) -> u32 {
        self.attr().type_
    }

    /// Returns the type number of the PMU the event is being given to.
    ///
    /// In [`Pmu::event_init`], an event whose [`Event::attr_type`] differs is not meant for the
    /// PMU, which then returns `ENOENT`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants the event is valid; the perf core sets `pmu` before it
        // calls any callback of that PMU.
        let type_ = unsafe { (*(*self.as_raw()).pmu).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }

    /// Returns `perf_event_attr::config`.
    pub fn config(&self) -> u64 {
        self.attr().config
    }

    /// Returns `perf_event_attr::config1` (for probe PMUs, a user pointer to a name).
    pub fn config1(&self) -> u64 {
        // SAFETY: Every member of this union is a `u64`.
        unsafe { self.attr().__bindgen_anon_3.config1 }
    }

    /// Returns `perf_event_attr::config2` (for probe PMUs, an address or an offset).
    pub fn config2(&self) -> u64 {
        // SAFETY: Every member of this union is a `u64`.
        unsafe { self.attr().__bindgen_anon_4.config2 }
    }

    /// Returns whether the event samples the branch stack (the C `has_branch_stack()`).
    pub fn has_branch_stack(&self) -> bool {
        const BRANCH_STACK: u64 =
            bindings::perf_event_sample_format_PERF_SAMPLE_BRANCH_STACK as u64;
        self.attr().sample_type & BRANCH_STACK != 0
    }

    fn has_trace_event(&self) -> bool {
        // SAFETY: By the type invariants the event is valid.
        !unsafe { (*self.as_raw()).tp_event }.is_null()
    }

    /// Attaches a new local kprobe to the event, in [`Pmu::event_init`].
    ///
    /// The probe is on `func` (plus `perf_event_attr::probe_offset`), or at the address
    /// `perf_event_attr::kprobe_addr` when `func` is `None`; on the function's return when
    /// `retprobe` is set. On success the perf core releases the probe with the event.
    #[cfg(CONFIG_KPROBE_EVENTS)]
    pub fn init_kprobe(&self, func: Option<&CStr>, retprobe: bool) -> Result {
        let func = func.map_or(core::ptr::null(), CStr::as_char_ptr);
        // SAFETY: The event is valid and being initialised by its PMU; `func` is null or a valid
        // string that the callee copies.
        to_result(unsafe { bindings::perf_local_kprobe_init(self.as_raw(), func, retprobe) })?;
        // SAFETY: The event is valid and now holds a local kprobe, which
        // `perf_kprobe_destroy` releases.
        unsafe { (*self.as_raw()).destroy = Some(bindings::perf_kprobe_destroy) };
        Ok(())
    }

    /// Attaches a new local uprobe to the event, in [`Pmu::event_init`].
    ///
    /// The probe is in the file at `path`, at the file offset `perf_event_attr::probe_offset`;
    /// on the function's return when `retprobe` is set. A non-zero `ref_ctr_offset` is the file
    /// offset of the probe's reference counter (its USDT semaphore). On success the perf core
    /// releases the probe with the event.
    #[cfg(CONFIG_UPROBE_EVENTS)]
    pub fn init_uprobe(&self, path: &CStr, ref_ctr_offset: usize, retprobe: bool) -> Result {
        // SAFETY: The event is valid and being initialised by its PMU; `path` is a valid string
        // that the callee copies.
        to_result(unsafe {
            bindings::perf_local_uprobe_init(
                self.as_raw(),
                path.as_char_ptr(),
                ref_ctr_offset,
                retprobe,
            )
        })?;
        // SAFETY: The event is valid and now holds a local uprobe, which
        // `perf_uprobe_destroy` releases.
        unsafe { (*self.as_raw()).destroy = Some(bindings::perf_uprobe_destroy) };
        Ok(())
    }
}

/// The longest function name a kprobe takes, with its NUL (`KSYM_NAME_LEN`).
pub const KPROBE_FUNC_MAX: usize = bindings::KSYM_NAME_LEN as usize;

/// The longest path a uprobe takes, with its NUL (`PATH_MAX`).
pub const UPROBE_PATH_MAX: usize = bindings::PATH_MAX as usize;

/// A NUL-terminated string copied from user space.
///
/// This is what the C `strndup_user()` returns, with the error perf reports for a string that is
/// too long.
///
/// # Invariants
///
/// `ptr` points at a NUL-terminated string allocated with `kmalloc`, owned by `self`.
pub struct UserCString {
    ptr: NonNull<c_char>,
}

impl UserCString {
    /// Copies the string at the user address `addr`, of at most `max_len` bytes with its NUL.
    ///
    /// Fails with `EFAULT` when the string cannot be read, `E2BIG` when it has no NUL within
    /// `max_len` bytes, and `ENOMEM`. An empty string is copied (see [`CStr::is_empty`]).
    pub fn copy_from_user(addr: u64, max_len: usize) -> Result<Self> {
        let max_len = max_len.try_into().map_err(|_| EINVAL)?;
        let uptr = addr as usize as *const c_char;
        // SAFETY: `strndup_user` checks the user pointer and reads at most `max_len` bytes.
        let ptr = unsafe { bindings::strndup_user(uptr, max_len) };
        match crate::error::from_err_ptr(ptr) {
            // `strndup_user` says EINVAL when the string is too long; perf says E2BIG.
            Err(e) if e == EINVAL => Err(E2BIG),
            Err(e) => Err(e),
            // INVARIANT: `strndup_user` returned a NUL-terminated copy from `kmalloc`.
            Ok(ptr) => NonNull::new(ptr).map(|ptr| Self { ptr }).ok_or(ENOMEM),
        }
    }
}

impl Deref for UserCString {
    type Target = CStr;

    fn deref(&self) -> &CStr {
        // SAFETY: By the type invariants `ptr` is a NUL-terminated string that lives as long as
        // `self`.
        unsafe { CStr::from_char_ptr(self.ptr.as_ptr()) }
    }
}

impl Drop for UserCString {
    fn drop(&mut self) {
        // SAFETY: By the type invariants `ptr` was allocated with `kmalloc` and is owned by us.
        unsafe { bindings::kfree(self.ptr.as_ptr().cast()) };
    }
}

/// An attribute of a PMU's sysfs `format` directory: which bits of the event attributes hold
/// one of its parameters, as in `retprobe` = `config:0`.
///
/// This is the Rust counterpart of the C `PMU_FORMAT_ATTR()`.
pub struct FormatAttribute {
    name: &'static CStr,
    value: &'static CStr,
}

impl FormatAttribute {
    /// Creates a format attribute: the file `name` reads `value` and a newline.
    pub const fn new(name: &'static CStr, value: &'static CStr) -> Self {
        Self { name, value }
    }
}

/// A PMU: the callbacks through which the perf core creates and schedules its events.
///
/// Corresponds to the callbacks of the C `struct pmu`. [`Pmu::event_init`] is required. The
/// others default to what a software-context PMU whose events are trace events needs: `add` and
/// `del` to `perf_trace_add` and `perf_trace_del` (available only with [`Pmu::TRACE_EVENTS`]),
/// and `start`, `stop` and `read` to the software events' `perf_swevent_start`,
/// `perf_swevent_stop` and `perf_swevent_read`. The `flags` of `add`, `del`, `start` and `stop`
/// are the C `PERF_EF_*` flags.
#[vtable]
pub trait Pmu: 'static {
    /// The name of the PMU in sysfs (`/sys/bus/event_source/devices/NAME`).
    const NAME: &'static CStr;

    /// The context in which the perf core schedules the PMU's events.
    const TASK_CONTEXT: TaskContext = TaskContext::Software;

    /// The attributes of the PMU's sysfs `format` directory.
    const FORMAT: &'static [FormatAttribute] = &[];

    /// Whether the PMU's events are trace events: each one that [`Pmu::event_init`] accepts
    /// holds a trace event (see [`Event::init_kprobe`]), and takes ftrace filters and BPF
    /// programs like a tracepoint event. An accepted event without one is refused with `EINVAL`.
    const TRACE_EVENTS: bool = false;

    /// Checks the event's attributes and prepares it, or says why not.
    ///
    /// `ENOENT` means that the event is not meant for this PMU, and lets the perf core try the
    /// next one.
    fn event_init(event: &Event) -> Result;

    /// Releases what [`Pmu::event_init`] prepared, when the event is freed.
    fn destroy(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Schedules the event on the current CPU.
    fn add(_event: &Event, _flags: u32) -> Result {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Removes the event from the current CPU.
    fn del(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Starts counting.
    fn start(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Stops counting.
    fn stop(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Updates the event's count.
    fn read(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }
}

struct Adapter<T: Pmu>(PhantomData<T>);

impl<T: Pmu> Adapter<T> {
    /// # Safety
    ///
    /// `event` must be a valid event that the perf core is initialising for this PMU.
    unsafe extern "C" fn event_init_callback(event: *mut bindings::perf_event) -> c_int {
        from_result(|| {
            // SAFETY: By the function requirements `event` is valid during the callback.
            let ev = unsafe { Event::from_raw(event) };
            T::event_init(ev)?;
            if T::TRACE_EVENTS && !ev.has_trace_event() {
                pr_err!(
                    "perf: PMU {} accepted an event without a trace event\n",
                    T::NAME
                );
                // SAFETY: The event is valid; its destroy callback, if any, undoes what
                // `event_init` prepared, and the perf core will not call it for a failed init.
                unsafe {
                    if let Some(destroy) = (*event).destroy.take() {
                        destroy(event);
                    }
                }
                return Err(EINVAL);
            }
            if T::HAS_DESTROY {
                // SAFETY: The event is valid and owned by the perf core, which calls `destroy`
                // once when it frees the event.
                unsafe { (*event).destroy = Some(Self::destroy_callback) };
            }
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, being freed.
    unsafe extern "C" fn destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::destroy(unsafe { Event::from_raw(event) })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn add_callback(event: *mut bindings::perf_event, flags: c_int) -> c_int {
        from_result(|| {
            // SAFETY: By the function requirements `event` is valid during the callback.
            T::add(unsafe { Event::from_raw(event) }, flags as u32)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn del_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::del(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn start_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::start(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn stop_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::stop(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn read_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::read(unsafe { Event::from_raw(event) })
    }

    /// The callbacks of the C `struct pmu`, with the defaults described at [`Pmu`].
    const CALLBACKS: Callbacks = Callbacks {
        add: if T::HAS_ADD {
            Self::add_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_add
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        },
        del: if T::HAS_DEL {
            Self::del_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_del
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        },
        start: if T::HAS_START {
            Self::start_callback
        } else {
            bindings::perf_swevent_start
        },
        stop: if T::HAS_STOP {
            Self::stop_callback
        } else {
            bindings::perf_swevent_stop
        },
        read: if T::HAS_READ {
            Self::read_callback
        } else {
            bindings::perf_swevent_read
        },
    };
}

struct Callbacks {
    add: unsafe extern "C" fn(*mut bindings::perf_event, c_int) -> c_int,
    del: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    start: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    stop: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    read: unsafe extern "C" fn(*mut bindings::perf_event),
}

/// A `struct device_attribute` of a `format` directory, with the text it shows.
#[repr(C)]
struct FormatDeviceAttribute {
    attr: bindings::device_attribute,
    value: &'static CStr,
}

/// # Safety
///
/// `attr` must be the `attr` field of a [`FormatDeviceAttribute`], and `buf` a sysfs page.
unsafe extern "C" fn format_show(
    _dev: *mut bindings::device,
    attr: *mut bindings::device_attribute,
    buf: *mut c_char,
) -> isize {
    // CAST: `attr` is the first field of a `repr(C)` `FormatDeviceAttribute`.
    let format = attr.cast::<FormatDeviceAttribute>();
    // SAFETY: By the function requirements `format` is valid and `buf` is a sysfs page; the
    // format string takes one string argument.
    let len = unsafe {
        bindings::sysfs_emit(
            buf,
            crate::c_str!("%s\n").as_char_ptr(),
            (*format).value.as_char_ptr(),
        )
    };
    len as isize
}

/// The registration of a PMU with the perf core.
///
/// Registers the PMU `T` under [`Pmu::NAME`], with a dynamic type number, when it is
/// initialised, and unregisters it when dropped.
///
/// # Invariants
///
/// `registered` says whether `pmu` is registered with the perf core. Once initialised, `pmu`
/// points at `groups`, which points at `group`, which points at the null-terminated array
/// `attrs`, which points at the elements of `format`.
#[pin_data(PinnedDrop)]
pub struct Registration<T: Pmu> {
    #[pin]
    pmu: Opaque<bindings::pmu>,
    #[pin]
    group: Opaque<bindings::attribute_group>,
    #[pin]
    groups: Opaque<[*const bindings::attribute_group; 2]>,
    format: KVec<FormatDeviceAttribute>,
    attrs: KVec<*mut bindings::attribute>,
    registered: bool,
    _p: PhantomData<T>,
}

// SAFETY: The registration only gives out the PMU's type number; the perf core may call the
// PMU's callbacks from any context, and unregistering is allowed from any task.
unsafe impl<T: Pmu> Send for Registration<T> {}

// SAFETY: `&Registration` only reads the PMU's type number.
unsafe impl<T: Pmu> Sync for Registration<T> {}

impl<T: Pmu> Registration<T> {
    /// Creates the PMU and registers it with the perf core.
    ///
    /// `module` is the module that holds the PMU's code, which the perf core keeps loaded while
    /// the PMU has events; built-in code passes `None`.
    pub fn new(module: Option<&'static ThisModule>) -> impl PinInit<Self, Error> {
        let module = module.map_or(core::ptr::null_mut(), |m| m.0);
        try_pin_init!(Self {
            pmu: Opaque::uninit(),
            group: Opaque::uninit(),
            groups: Opaque::uninit(),
            format: Self::format_attributes()?,
            attrs: KVec::with_capacity(T::FORMAT.len() + 1, GFP_KERNEL)?,
            registered: false,
            _p: PhantomData,
        })
        .pin_chain(move |this| {
            // SAFETY: `register` does not move the fields; `this` stays pinned.
            unsafe { this.get_unchecked_mut().register(module) }
        })
    }

    fn format_attributes() -> Result<KVec<FormatDeviceAttribute>> {
        let mut format = KVec::with_capacity(T::FORMAT.len(), GFP_KERNEL)?;
        for f in T::FORMAT {
            // SAFETY: All-zero is a valid `struct device_attribute` (no callbacks).
            let mut attr: bindings::device_attribute = unsafe { core::mem::zeroed() };
            attr.attr.name = f.name.as_char_ptr();
            attr.attr.mode = 0o444;
            attr.show = Some(format_show);
            // SAFETY: `attr.attr` is a valid attribute that is not registered yet.
            unsafe { bindings::sysfs_attr_init(&mut attr.attr) };
            format.push(
                FormatDeviceAttribute {
                    attr,
                    value: f.value,
                },
                GFP_KERNEL,
            )?;
        }
        Ok(format)
    }

    /// Sets up the C structures and registers the PMU.
    ///
    /// # Safety
    ///
    /// `self` must be pinned, and called once; `module` must be null or a valid module.
    unsafe fn register(&mut self, module: *mut bindings::module) -> Result {
        // Capacity was reserved for every attribute and the terminating null: no reallocation.
        for f in self.format.iter_mut() {
            self.attrs.push(&mut f.attr.attr, GFP_KERNEL)?;
        }
        self.attrs.push(core::ptr::null_mut(), GFP_KERNEL)?;

        let group = self.group.get();
        let groups = self.groups.get();
        let pmu = self.pmu.get();
        let callbacks = &Adapter::<T>::CALLBACKS;
        // SAFETY: The three C structures are owned by `self`, pinned, and not yet visible to the
        // perf core; all-zero is a valid `struct attribute_group` and `struct pmu`.
        unsafe {
            group.write(core::mem::zeroed());
            (*group).name = crate::c_str!("format").as_char_ptr();
            (*group).attrs = self.attrs.as_mut_ptr();
            groups.write([group.cast_const(), core::ptr::null()]);
            pmu.write(core::mem::zeroed());
            (*pmu).module = module;
            (*pmu).task_ctx_nr = T::TASK_CONTEXT.as_raw();
            if T::TRACE_EVENTS {
                (*pmu).capabilities = bindings::PERF_PMU_CAP_TRACE_EVENTS as c_int;
            }
            if !T::FORMAT.is_empty() {
                (*pmu).attr_groups = groups.cast();
            }
            (*pmu).event_init = Some(Adapter::<T>::event_init_callback);
            (*pmu).add = Some(callbacks.add);
            (*pmu).del = Some(callbacks.del);
            (*pmu).start = Some(callbacks.start);
            (*pmu).stop = Some(callbacks.stop);
            (*pmu).read = Some(callbacks.read);
        }
        // SAFETY: `pmu` is fully set up and pinned; `T::NAME` is static; -1 asks for a dynamic
        // type number.
        to_result(unsafe { bindings::perf_pmu_register(pmu, T::NAME.as_char_ptr(), -1) })?;
        // INVARIANT: The PMU is registered.
        self.registered = true;
        Ok(())
    }

    /// Returns the PMU's type number, which user space passes as `perf_event_attr::type`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants `pmu` is initialised, and its type does not change.
        let type_ = unsafe { (*self.pmu.get()).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }
}

#[pinned_drop]
impl<T: Pmu> PinnedDrop for Registration<T> {
    fn drop(self: Pin<&mut Self>) {
        // A registration whose `perf_pmu_register` failed is dropped by its initialiser.
        if self.registered {
            // SAFETY: The PMU is registered.
            unsafe { bindings::perf_pmu_unregister(self.pmu.get()) };
        }
    }
}
