// SPDX-License-Identifier: GPL-2.0

//! The registration of a PMU with the perf core: [`Registration`] owns the C `struct pmu` (the
//! `Adapter`'s, set up for one module) and its sysfs `format` attributes (`PmuData`), and
//! registers and unregisters them with `perf_pmu_register()` and `perf_pmu_unregister()`.

use super::{pmu::Adapter, probe::ProbeReapers, Pmu};
use crate::{bindings, error::to_result, ffi::c_char, prelude::*, types::Opaque};
use core::{
    marker::PhantomData,
    mem::{ManuallyDrop, MaybeUninit},
};

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

/// The C structures of a PMU: `struct pmu` and its sysfs `format` attributes.
///
/// # Invariants
///
/// `group` points at the null-terminated array `attrs`, which points at the elements of `format`;
/// `groups` points at `group`; `pmu` points at `groups` when the PMU has format attributes.
#[pin_data]
pub(super) struct PmuData<T: Pmu> {
    #[pin]
    pmu: Opaque<bindings::pmu>,
    #[pin]
    group: Opaque<bindings::attribute_group>,
    #[pin]
    groups: Opaque<[*const bindings::attribute_group; 2]>,
    format: KVec<FormatDeviceAttribute>,
    attrs: KVec<*mut bindings::attribute>,
    /// For a PMU whose events are trace events, the release of their probes.
    pub(super) probes: Option<Pin<KBox<ProbeReapers>>>,
    _p: PhantomData<T>,
}

impl<T: Pmu> PmuData<T> {
    /// Sets up the C structures of the PMU of `module`, for `perf_pmu_register()`.
    fn new(module: *mut bindings::module) -> Result<impl PinInit<Self, Error>> {
        let mut format = KVec::with_capacity(T::FORMAT.len(), GFP_KERNEL)?;
        for f in T::FORMAT {
            // SAFETY: All-zero is a valid `struct device_attribute` (no callbacks).
            let mut attr: bindings::device_attribute = unsafe { core::mem::zeroed() };
            attr.attr.name = f.name.as_char_ptr();
            attr.attr.mode = 0o444;
            attr.show = Some(format_show);
            // SAFETY: `attr.attr` is a valid attribute that is not registered yet; its lock class
            // key is static.
            unsafe { bindings::sysfs_attr_init(&mut attr.attr) };
            format.push(
                FormatDeviceAttribute {
                    attr,
                    value: f.value,
                },
                GFP_KERNEL,
            )?;
        }
        // The elements of `format` stay where they are when the vector moves.
        let mut attrs = KVec::with_capacity(T::FORMAT.len() + 1, GFP_KERNEL)?;
        for i in 0..format.len() {
            // SAFETY: `i` is in bounds.
            let f = unsafe { format.as_mut_ptr().add(i) };
            // CAST: The attribute is the first field of the `repr(C)` `FormatDeviceAttribute`,
            // through the `device_attribute`; the pointer keeps the provenance of the whole
            // element, which `format_show` reads.
            attrs.push(f.cast::<bindings::attribute>(), GFP_KERNEL)?;
        }
        attrs.push(core::ptr::null_mut(), GFP_KERNEL)?;
        let group = bindings::attribute_group {
            name: crate::c_str!("format").as_char_ptr(),
            attrs: attrs.as_mut_ptr(),
            // SAFETY: All-zero is a valid `struct attribute_group`.
            ..unsafe { MaybeUninit::zeroed().assume_init() }
        };
        let probes = if T::TRACE_EVENTS {
            Some(KBox::pin_init(ProbeReapers::new(), GFP_KERNEL)?)
        } else {
            None
        };
        Ok(try_pin_init!(Self {
            pmu: Opaque::new(Adapter::<T>::PMU),
            group: Opaque::new(group),
            groups: Opaque::uninit(),
            format,
            attrs,
            probes,
            _p: PhantomData,
        })
        .pin_chain(move |data| {
            let pmu = data.pmu.get();
            let groups = data.groups.get();
            // SAFETY: The data is pinned, and not yet visible to the perf core.
            unsafe {
                groups.write([data.group.get().cast_const(), core::ptr::null()]);
                (*pmu).module = module;
                if !T::FORMAT.is_empty() {
                    (*pmu).attr_groups = groups.cast();
                }
            }
            // INVARIANT: `groups` points at `group`, and `pmu` at `groups` when there are format
            // attributes.
            Ok(())
        }))
    }

    /// Returns the data of the PMU `pmu`.
    ///
    /// # Safety
    ///
    /// `pmu` must be the `pmu` of a registered `PmuData<T>`, which stays registered for `'a`.
    /// Callers on several CPUs at once only use `probes`, which is `Sync`.
    #[cfg_attr(not(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS)), allow(dead_code))]
    pub(super) unsafe fn from_pmu<'a>(pmu: *mut bindings::pmu) -> &'a Self {
        // SAFETY: By the function requirements `pmu` is the `pmu` field of a live `PmuData<T>`;
        // `Opaque<pmu>` has the layout of a `pmu`. Once registered, the data is only shared.
        unsafe { &*crate::container_of!(pmu, Self, pmu) }
    }
}

/// The registration of a PMU with the perf core.
///
/// Registers the PMU `T` under [`Pmu::NAME`], with a dynamic type number, for as long as the
/// code of its callbacks is loaded: for the life of the kernel ([`Registration::new_builtin`]),
/// or of the module that passes its `THIS_MODULE` to [`Registration::new`].
///
/// The perf core of this kernel neither waits for nor detaches the events of a PMU that is
/// unregistered: they keep using its C structures. So a PMU is unregistered only when none of
/// its events can exist. Each event holds a reference to the PMU's module, so when the module
/// is being unloaded (its exit drops the registration) no event is left and none can be
/// created. While the module initialises, the PMU refuses every event (`ENOENT`, as a PMU that
/// is not registered yet), so a module whose init fails may drop the registration too. Dropped
/// at any other time, the registration leaves the PMU registered and its C structures
/// allocated, and keeps its module loaded for good; if the module is being unloaded at that
/// very moment, which no event can then hold, it unregisters the PMU.
///
/// As for everything a module registers, its code must not outlive it: a registration that a
/// module leaks (`core::mem::forget`) leaves the PMU registered after the module is unloaded.
///
/// # Invariants
///
/// `data` is registered with the perf core, with `module` as its module.
pub struct Registration<T: Pmu> {
    data: ManuallyDrop<Pin<KBox<PmuData<T>>>>,
    module: *mut bindings::module,
}

// SAFETY: Nothing the registration does depends on the task that does it: it reads the
// PMU's type number, and its drop reads its module's state, takes a module reference and
// unregisters the PMU, which any task may do.
unsafe impl<T: Pmu> Send for Registration<T> {}

// SAFETY: `&Registration` only reads the PMU's type number.
unsafe impl<T: Pmu> Sync for Registration<T> {}

impl<T: Pmu> Registration<T> {
    /// Registers the PMU of the module `module`, which the perf core keeps loaded while the PMU
    /// has events. A module passes its `THIS_MODULE`.
    pub fn new(module: &'static ThisModule) -> Result<Self> {
        Self::register(module.as_ptr())
    }

    /// Registers a PMU of built-in code, for the life of the kernel: dropping the registration
    /// leaves the PMU registered (see [`Registration::unregister_unused`]).
    ///
    /// For built-in code only: in a module, which must use [`Registration::new`], it does not
    /// link (`is_module_text_address()` is not exported), and it fails with `EINVAL` when the
    /// PMU's code is in a module all the same.
    pub fn new_builtin() -> Result<Self> {
        #[cfg(CONFIG_MODULES)]
        {
            let callback = Adapter::<T>::event_init_callback as *const () as usize;
            // SAFETY: Any address may be looked up.
            if unsafe { bindings::is_module_text_address(callback) } {
                return Err(EINVAL);
            }
        }
        Self::register(core::ptr::null_mut())
    }

    /// Unregisters the PMU, whatever its code's lifetime, and frees its C structures.
    ///
    /// For a PMU of built-in code that is known to have no events, such as one whose
    /// [`Pmu::event_init`] failed for every event it was given.
    ///
    /// # Safety
    ///
    /// No event of the PMU exists, and none is created (`perf_pmu_unregister()` waits for those
    /// being initialised, which must fail).
    pub unsafe fn unregister_unused(self) {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: By the type invariants the PMU is registered; by the function requirements no
        // event of it exists or is created.
        unsafe { bindings::perf_pmu_unregister(this.data.pmu.get()) };
        // SAFETY: The perf core no longer uses the C structures; `data` is not used again, and
        // `this` is not dropped.
        unsafe { ManuallyDrop::drop(&mut this.data) };
    }

    fn register(module: *mut bindings::module) -> Result<Self> {
        let data = KBox::pin_init(PmuData::<T>::new(module)?, GFP_KERNEL)?;
        // SAFETY: The PMU's C structures are set up and pinned, with a module that is null or
        // valid (`ThisModule` is valid for `'static`); they are freed only once the PMU is
        // unregistered, or here if its registration fails, when the perf core keeps no pointer
        // to them (it publishes a PMU last, once nothing can fail). `T::NAME` is static; -1 asks
        // for a dynamic type number.
        to_result(unsafe {
            bindings::perf_pmu_register(data.pmu.get(), T::NAME.as_char_ptr(), -1)
        })?;
        // INVARIANT: The PMU is registered.
        Ok(Self {
            data: ManuallyDrop::new(data),
            module,
        })
    }

    /// Returns the PMU's type number, which user space passes as `perf_event_attr::type`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants `pmu` is registered, and its type does not change.
        let type_ = unsafe { (*self.data.pmu.get()).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }
}

impl<T: Pmu> Drop for Registration<T> {
    fn drop(&mut self) {
        if !module_may_unregister(self.module) {
            if self.module.is_null() {
                return;
            }
            // SAFETY: By the type invariants `module` is a valid module. Taking a reference for
            // good fails only when it has just started going away, with no event holding it: then
            // the PMU is unregistered below.
            if unsafe { bindings::try_module_get(self.module) } {
                pr_warn!(
                    "perf: PMU {} dropped while its module is live: left registered\n",
                    T::NAME
                );
                return;
            }
        }
        // SAFETY: By the type invariants the PMU is registered; its module is going away (no
        // event holds it, and none can take it) or initialising (the PMU took no event), so
        // none of its events exist; `perf_pmu_unregister` waits for event inits in progress.
        unsafe { bindings::perf_pmu_unregister(self.data.pmu.get()) };
        // SAFETY: The perf core no longer uses the C structures; `data` is not used again.
        unsafe { ManuallyDrop::drop(&mut self.data) };
    }
}

/// Returns whether the PMU of `module` may be unregistered: when none of its events can exist,
/// because `module` is going away (no event holds it any more) or initialising (its PMU refuses
/// every event). A PMU of built-in code (a null `module`) stays registered.
fn module_may_unregister(module: *mut bindings::module) -> bool {
    #[cfg(CONFIG_MODULES)]
    if !module.is_null() {
        // SAFETY: `module` is a valid module.
        return unsafe { !bindings::module_is_live(module) || bindings::module_is_coming(module) };
    }
    let _ = module;
    false
}
