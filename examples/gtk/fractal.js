// fractal.js: a Mandelbrot/Julia explorer whose pixels come from a CUDA
// kernel, shown in a GtkPicture. GTK 4.8 + libadwaita 1.2 (Debian 12).
//
// Run it with the launcher meson writes (build/examples/gtk/gcuda-fractal, or
// the installed gcuda-fractal): it sets GCUDA_FRACTAL_DATADIR to the folder
// holding the app's GResources and starts `gjs -m fractal.js`.
//
//   gcuda-fractal [--device N] [--copy]
//   gcuda-fractal --render WIDTH HEIGHT --output FILE.png [--frames N] [--copy]
//   gcuda-fractal --self-test
//
// How a frame is made (FractalWindow._renderFrame): the kernel writes RGBA
// bytes into device memory on the device's own stream between two timing
// events; a GCudaGtk.FrameSink (libgcuda-gtk, see FrameDisplay) turns them
// into the texture GTK shows: zero-copy (a GdkGLTexture CUDA wrote on the
// GPU) when GTK draws with OpenGL on the same NVIDIA GPU, else the copy path
// (download_async() into a GBytes, wrapped by Gdk.MemoryTexture as it is).
// The header bar and --self-test say which path is in use, and why; --copy
// asks for the copy path. The main loop never waits for the GPU.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import GObject from 'gi://GObject';
import Gdk from 'gi://Gdk?version=4.0';
import Gtk from 'gi://Gtk?version=4.0';
import Adw from 'gi://Adw?version=1';
import GCuda from 'gi://GCuda?version=1.0';
import System from 'system';
import gi from 'gi';

// libgcuda-gtk is optional (GCuda builds without GTK's development files):
// without it, frames take the copy path, as they did before it existed.
let GCudaGtk = null, noGCudaGtk = null;
try {
    GCudaGtk = gi.require('GCudaGtk', '1.0');
    Gio._promisify(GCudaGtk.FrameSink.prototype, 'end_frame_async', 'end_frame_finish');
} catch (e) {
    noGCudaGtk = e.message;
}

const APP_ID = 'org.gnome.GCuda.Fractal';
const PROGRAM = 'gcuda-fractal';
const RESOURCE_BASE = '/org/gnome/GCuda/Fractal';
// Prebuilt kernels (gcuda-compile's manifest and images), when the build had
// gcuda-compile; the source is always there for a compile at run time.
const KERNEL_RESOURCE = `${RESOURCE_BASE}/kernels/fractal`;
const SOURCE_RESOURCE = `${RESOURCE_BASE}/fractal.cu`;
const RESOURCE_FILES = [`${APP_ID}.gresource`, `${APP_ID}.kernels.gresource`];

// The view --render draws (the test's CPU reference uses the same numbers).
const HOME = {cx: -0.75, cy: 0.0, span: 2.8, maxIter: 256};
const JULIA_C = [-0.8, 0.156];
const BLOCK = 16;

Gio._promisify(GCuda.Compiler.prototype, 'compile_async', 'compile_finish');
Gio._promisify(GCuda.Buffer.prototype, 'download_async', 'download_finish');
Gio._promisify(GCuda.Module, 'new_from_resource_async', 'new_from_resource_finish');

// ----------------------------------------------------------------- options

function usage() {
    return `usage: ${PROGRAM} [--device N] [--julia] [--copy]
       ${PROGRAM} --render WIDTH HEIGHT --output FILE.png [--frames N] [--device N] [--copy]
       ${PROGRAM} --self-test [--copy]`;
}

function parseArgs(argv) {
    const opts = {render: null, output: null, frames: 1, device: null, selfTest: false, julia: false, copy: false};
    const int = (s, what, min) => {
        const v = Number(s);
        if (!Number.isInteger(v) || v < min)
            throw new Error(`${what}: expected an integer >= ${min}, got "${s ?? ''}"`);
        return v;
    };
    for (let i = 0; i < argv.length; i++) {
        switch (argv[i]) {
        case '--render':
            opts.render = [int(argv[i + 1], '--render WIDTH', 1), int(argv[i + 2], '--render HEIGHT', 1)];
            i += 2;
            break;
        case '--output':
            if (argv[i + 1] === undefined)
                throw new Error('--output: expected a file name');
            opts.output = argv[++i];
            break;
        case '--frames':
            opts.frames = int(argv[++i], '--frames', 1);
            break;
        case '--device':
            opts.device = int(argv[++i], '--device', 0);
            break;
        case '--julia':
            opts.julia = true;
            break;
        case '--copy':
            opts.copy = true;
            break;
        case '--self-test':
            opts.selfTest = true;
            break;
        case '--help': case '-h':
            print(usage());
            System.exit(0);
            break;
        default:
            throw new Error(`unknown argument "${argv[i]}"`);
        }
    }
    if ((opts.render === null) !== (opts.output === null))
        throw new Error('--render and --output go together');
    return opts;
}

// -------------------------------------------------------------- resources

function registerResources() {
    const dir = GLib.getenv('GCUDA_FRACTAL_DATADIR') ??
        GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]);
    for (const name of RESOURCE_FILES) {
        const path = GLib.build_filenamev([dir, name]);
        if (GLib.file_test(path, GLib.FileTest.EXISTS))
            Gio.resources_register(Gio.Resource.load(path));
    }
}

function resourceExists(path) {
    try {
        Gio.resources_get_info(path, Gio.ResourceLookupFlags.NONE);
        return true;
    } catch (e) {
        return false;
    }
}

// ---------------------------------------------------------------- devices

// The GPUs as a GListModel of GCuda.Device. Without a driver or a GPU the
// list is empty and its error says why.
function listDevices() {
    const model = GCuda.DeviceModel.get_default();
    return {model, message: model.get_error()?.message ?? null};
}

function describeDevice(device) {
    const [major, minor] = device.get_compute_capability();
    return `${device.get_ordinal()}: ${device.get_name()} (sm_${major}${minor})`;
}

// ----------------------------------------------------------------- display

// How frames reach GTK: a GCudaGtk.FrameSink, which chooses zero-copy or the
// copy path for the window (and falls back to the copy path by itself), or,
// without libgcuda-gtk, the copy path here. The kernel writes the same
// buffer either way: width x height RGBA bytes, rows width * 4 apart. The
// picture shows `paintable`: the sink itself, which shows its last frame
// (a texture handed to JS would keep its GL texture from being reused until
// the garbage collector runs), or the last memory texture.
class FrameDisplay {
    constructor(context, widget, forceCopy) {
        this._context = context;
        this._sink = null;
        this._buffer = null;
        this._texture = null;
        this._size = [0, 0];
        if (!GCudaGtk) {
            this._reason = `GCudaGtk (libgcuda-gtk) is not available (${noGCudaGtk}): frames are copied through host memory`;
        } else if (forceCopy) {
            this._sink = GCudaGtk.FrameSink.new(context, null);
            this._reason = '--copy asks for the copy path: frames are copied through host memory';
        } else {
            this._sink = GCudaGtk.FrameSink.new_for_widget(context, widget);
        }
    }

    // 'zero-copy' or 'copy'
    get path() {
        return this._sink && this._sink.path === GCudaGtk.FramePath.ZERO_COPY ? 'zero-copy' : 'copy';
    }

    get reason() {
        return this._reason ?? this._sink.reason;
    }

    get paintable() {
        return this._sink ?? this._texture;
    }

    // The last frame, to save it (--render).
    get texture() {
        return this._sink?.texture ?? this._texture;
    }

    // The buffer the kernel writes this frame.
    beginFrame(width, height) {
        this._size = [width, height];
        if (this._sink)
            return this._sink.begin_frame(width, height);
        const size = width * height * 4;
        if (!this._buffer || this._buffer.get_size() !== size)
            this._buffer = GCuda.Buffer.new(this._context, size);
        return this._buffer;
    }

    // Makes the frame `paintable`'s, once the work on stream that wrote it is done.
    async endFrame(stream, cancellable) {
        if (this._sink) {
            await this._sink.end_frame_async(stream, cancellable);
            return;
        }
        const [width, height] = this._size;
        const bytes = await this._buffer.download_async(0, width * height * 4, stream, cancellable);
        this._texture = Gdk.MemoryTexture.new(width, height, Gdk.MemoryFormat.R8G8B8A8, bytes, width * 4);
    }
}

// What one device needs to draw: its primary context, a stream, the kernel
// loaded into that context, two timing events, the reused arguments and the
// frame display (made with the first frame, for the window).
class DeviceState {
    constructor(device) {
        this.device = device;
        this.context = device.get_primary_context();
        this.stream = GCuda.Stream.new(this.context, GCuda.StreamFlags.NON_BLOCKING, 0);
        this.start = GCuda.Event.new(this.context, GCuda.EventFlags.DEFAULT);
        this.end = GCuda.Event.new(this.context, GCuda.EventFlags.DEFAULT);
        this.function = null;
        this.how = null;
        this.buffer = null;
        this.args = null;
        this.display = null;
        this.cancellable = new Gio.Cancellable();
    }

    // Loads the kernel: from the prebuilt images in the GResource where the
    // library can read them and they fit this GPU, else compiled from the
    // source with NVRTC in a worker thread (onCompiling() shows a spinner).
    async load(onCompiling) {
        let reason = null;
        if (resourceExists(`${KERNEL_RESOURCE}/manifest`)) {
            try {
                // on a worker thread: PTX for a newer GPU is JIT-compiled
                const module = await GCuda.Module.new_from_resource_async(
                    this.context, KERNEL_RESOURCE, null, this.cancellable);
                this._setModule(module, 'prebuilt');
                return;
            } catch (e) {
                // e.g. no image for this architecture: NVRTC can still help
                reason = e.message;
            }
        } else {
            reason = 'no prebuilt kernels in the resource';
        }
        log(`compiling the kernel at run time (${reason})`);
        onCompiling();
        const source = new TextDecoder().decode(
            Gio.resources_lookup_data(SOURCE_RESOURCE, Gio.ResourceLookupFlags.NONE).toArray());
        const compiler = GCuda.Compiler.new(this.context);
        compiler.set_no_extern_c(true);
        const program = await compiler.compile_async(source, this.cancellable);
        this._setModule(GCuda.Module.new_from_program(this.context, program), 'NVRTC');
    }

    _setModule(module, how) {
        this.module = module;
        this.function = module.get_function('fractal');
        this.how = how;
    }

    // The display's buffer for width x height RGBA pixels, and the arguments
    // made once: later frames only replace the values (set_*), no new builder.
    prepare(width, height, view) {
        const buffer = this.display.beginFrame(width, height);
        if (buffer !== this.buffer) {
            this.buffer = buffer;
            if (this.args)
                this.args.set_buffer(0, this.buffer);
        }
        const julia = view.julia ? 1 : 0;
        if (!this.args) {
            const a = GCuda.KernelArgs.new();
            a.add_buffer(this.buffer);
            a.add_int32(width);
            a.add_int32(height);
            a.add_double(view.cx);
            a.add_double(view.cy);
            a.add_double(view.scale);
            a.add_int32(view.maxIter);
            a.add_int32(julia);
            a.add_double(JULIA_C[0]);
            a.add_double(JULIA_C[1]);
            this.args = a;
        } else {
            const a = this.args;
            a.set_int32(1, width);
            a.set_int32(2, height);
            a.set_double(3, view.cx);
            a.set_double(4, view.cy);
            a.set_double(5, view.scale);
            a.set_int32(6, view.maxIter);
            a.set_int32(7, julia);
        }
    }

    dispose() {
        this.cancellable.cancel();
    }
}

// ------------------------------------------------------------------- view

// A GtkPicture in a widget that notices its own size, so that the fractal is
// rendered at the size it is shown (no GTK signal reports a new size). No
// layout manager: GTK would then not call vfunc_size_allocate.
const FractalView = GObject.registerClass({
    Signals: {'resized': {}},
}, class FractalView extends Gtk.Widget {
    constructor() {
        super({hexpand: true, vexpand: true});
        this.picture = new Gtk.Picture({can_shrink: true});
        if (Gtk.ContentFit)
            this.picture.content_fit = Gtk.ContentFit.CONTAIN;
        this.picture.set_parent(this);
        this._size = [0, 0];
    }

    vfunc_measure(orientation, forSize) {
        return this.picture.measure(orientation, forSize);
    }

    vfunc_size_allocate(width, height, baseline) {
        this.picture.allocate(width, height, baseline, null);
        if (width !== this._size[0] || height !== this._size[1]) {
            this._size = [width, height];
            // not from inside the allocation: a frame may change the picture
            GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
                this.emit('resized');
                return GLib.SOURCE_REMOVE;
            });
        }
    }

    vfunc_dispose() {
        this.picture?.unparent();
        this.picture = null;
        super.vfunc_dispose();
    }
});

// ----------------------------------------------------------------- window

const FractalWindow = GObject.registerClass(
class FractalWindow extends Adw.ApplicationWindow {
    constructor(app, opts) {
        super({application: app, title: 'Fractal', default_width: 960, default_height: 720});
        this._opts = opts;
        this._states = new Map();   // device ordinal -> DeviceState
        this._state = null;
        this._inFlight = false;
        this._dirty = false;
        this._generation = 0;
        this._frameTimes = [];
        // settle once: the kernel is loaded (ready) or an error is shown;
        // once: the first frame or an error is shown (outcome)
        this._ready = null;
        this._readyPromise = new Promise(resolve => (this._ready = resolve));
        this._outcome = null;
        this._outcomePromise = new Promise(resolve => (this._outcome = resolve));
        this._view = {cx: HOME.cx, cy: HOME.cy, scale: 0, maxIter: HOME.maxIter, julia: opts.julia};

        this._title = new Adw.WindowTitle({title: 'Fractal', subtitle: ''});
        const header = new Adw.HeaderBar({title_widget: this._title});
        this._deviceDrop = new Gtk.DropDown({tooltip_text: 'GPU'});
        const factory = new Gtk.SignalListItemFactory();
        factory.connect('setup', (_f, item) => item.set_child(new Gtk.Label({xalign: 0})));
        factory.connect('bind', (_f, item) => item.get_child().set_label(describeDevice(item.get_item())));
        this._deviceDrop.factory = factory;
        header.pack_start(this._deviceDrop);
        this._juliaButton = new Gtk.ToggleButton({label: 'Julia', active: opts.julia,
            tooltip_text: 'Julia set of c = −0.8 + 0.156i'});
        this._juliaButton.connect('toggled', b => {
            this._view.julia = b.active;
            this.requestRender();
        });
        header.pack_start(this._juliaButton);
        const home = new Gtk.Button({icon_name: 'go-home-symbolic', tooltip_text: 'Back to the whole set'});
        home.connect('clicked', () => {
            Object.assign(this._view, {cx: HOME.cx, cy: HOME.cy, scale: 0, maxIter: HOME.maxIter});
            this.requestRender();
        });
        header.pack_start(home);
        this._spinner = new Gtk.Spinner();
        header.pack_end(this._spinner);

        this._fractal = new FractalView();
        this._status = new Adw.StatusPage({icon_name: 'dialog-error-symbolic'});
        const compiling = new Adw.StatusPage({title: 'Compiling the kernel…',
            description: 'NVRTC is compiling the fractal kernel for this GPU',
            child: new Gtk.Spinner({spinning: true, width_request: 32, height_request: 32})});
        this._stack = new Gtk.Stack({transition_type: Gtk.StackTransitionType.CROSSFADE});
        this._stack.add_named(new Gtk.Box(), 'empty');
        this._stack.add_named(compiling, 'compiling');
        this._stack.add_named(this._fractal, 'fractal');
        this._stack.add_named(this._status, 'error');

        const box = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL});
        box.append(header);
        box.append(this._stack);
        this.set_content(box);

        this._fractal.connect('resized', () => this.requestRender());
        this._addGestures();
        this.connect('close-request', () => {
            for (const s of this._states.values())
                s.dispose();
            return false;
        });
    }

    // Drag to move, scroll to zoom about the pointer.
    _addGestures() {
        const drag = new Gtk.GestureDrag();
        let origin = null;
        drag.connect('drag-begin', () => (origin = [this._view.cx, this._view.cy]));
        drag.connect('drag-update', (_g, dx, dy) => {
            if (!origin || this._opts.render)
                return;
            const s = this._view.scale * this._fractal.get_scale_factor();
            this._view.cx = origin[0] - dx * s;
            this._view.cy = origin[1] + dy * s;
            this.requestRender();
        });
        this._fractal.add_controller(drag);

        let pointer = null;
        const motion = new Gtk.EventControllerMotion();
        motion.connect('motion', (_c, x, y) => (pointer = [x, y]));
        motion.connect('leave', () => (pointer = null));
        this._fractal.add_controller(motion);

        const scroll = new Gtk.EventControllerScroll({flags: Gtk.EventControllerScrollFlags.VERTICAL});
        scroll.connect('scroll', (_c, _dx, dy) => {
            if (this._opts.render || !this._view.scale)
                return true;
            this.zoom(Math.pow(1.25, dy), pointer);
            return true;
        });
        this._fractal.add_controller(scroll);
    }

    // Multiplies the scale by factor, keeping the point under (x, y) (widget
    // coordinates; the centre when null) where it is.
    zoom(factor, at) {
        const f = this._fractal.get_scale_factor();
        const w = this._fractal.get_width(), h = this._fractal.get_height();
        const [x, y] = at ?? [w / 2, h / 2];
        const v = this._view;
        const px = (x - w / 2) * f, py = (y - h / 2) * f;
        const wx = v.cx + px * v.scale, wy = v.cy - py * v.scale;
        v.scale *= factor;
        v.cx = wx - px * v.scale;
        v.cy = wy + py * v.scale;
        // deeper zoom, more iterations
        const depth = Math.max(0, Math.log2(HOME.span / (v.scale * Math.max(1, h * f))));
        v.maxIter = Math.round(HOME.maxIter + 64 * depth);
        this.requestRender();
    }

    // ----------------------------------------------------------- devices

    start() {
        const {model, message} = listDevices();
        this._devices = model;
        this._deviceDrop.model = model;
        if (model.get_n_items() === 0) {
            this._deviceDrop.sensitive = false;
            this._showError('No GPU available', message ?? 'No CUDA device found');
            return;
        }
        let selected = 0;
        if (this._opts.device !== null) {
            if (this._opts.device >= model.get_n_items()) {
                this._showError('No such GPU',
                    `--device ${this._opts.device}: there are ${model.get_n_items()} CUDA devices`);
                return;
            }
            selected = this._opts.device;
        }
        this._deviceDrop.selected = selected;
        this._deviceDrop.connect('notify::selected', () => this._useDevice(this._deviceDrop.selected));
        this._useDevice(selected);
    }

    async _useDevice(position) {
        const device = this._devices.get_item(position);
        if (!device)
            return;
        const generation = ++this._generation;
        this._state = null;
        try {
            let state = this._states.get(device.get_ordinal());
            if (!state) {
                state = new DeviceState(device);
                this._states.set(device.get_ordinal(), state);
                state.loading = state.load(() => {
                    if (generation === this._generation) {
                        this._spinner.spinning = true;
                        this._stack.visible_child_name = 'compiling';
                    }
                });
            }
            await state.loading;
            if (generation !== this._generation)
                return;   // another device was chosen meanwhile
            this._spinner.spinning = false;
            this._state = state;
            this._stack.visible_child_name = 'fractal';
            this._ready({});
            this.requestRender();
        } catch (e) {
            if (generation !== this._generation)
                return;
            this._states.delete(device.get_ordinal());
            this._spinner.spinning = false;
            this._showError(`Cannot use ${device.get_name()}`, e.message);
        }
    }

    _showError(title, message) {
        this._status.title = title;
        this._status.description = GLib.markup_escape_text(message, -1);
        this._title.subtitle = '';
        this._stack.visible_child_name = 'error';
        this._ready({error: message});
        this._outcome({error: message});
    }

    // ----------------------------------------------------------- frames

    // Asks for a frame; while one is on the GPU, the next waits for it (at
    // most one frame in flight, the newest view wins).
    requestRender() {
        if (this._inFlight) {
            this._dirty = true;
            return;
        }
        if (!this._state || this._opts.render)
            return;   // --render drives its frames itself
        this._inFlight = true;
        this._renderFrame().catch(e => {
            if (!e.matches?.(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                this._showError('Rendering failed', e.message);
        }).finally(() => {
            this._inFlight = false;
            if (this._dirty) {
                this._dirty = false;
                this.requestRender();
            }
        });
    }

    _renderSize() {
        if (this._opts.render)
            return this._opts.render;
        const f = this._fractal.get_scale_factor();
        return [this._fractal.get_width() * f, this._fractal.get_height() * f];
    }

    // One frame: launch between two events on the device's stream, hand the
    // pixels to the display without blocking (zero-copy or a download), show
    // the texture. Returns the GPU time in ms (kernel only, from the events).
    async _renderFrame() {
        const state = this._state;
        const [width, height] = this._renderSize();
        if (width <= 0 || height <= 0)
            return null;
        if (!this._view.scale)
            this._view.scale = HOME.span / height;
        // the window is realized by now (it was presented before the kernel loaded)
        state.display ??= new FrameDisplay(state.context, this, this._opts.copy);
        state.prepare(width, height, this._view);
        state.start.record(state.stream);
        state.function.launch(Math.ceil(width / BLOCK), Math.ceil(height / BLOCK), 1,
            BLOCK, BLOCK, 1, 0, state.stream, state.args);
        state.end.record(state.stream);
        // Stream order: when the frame is ready, the kernel and both events are done.
        await state.display.endFrame(state.stream, state.cancellable);
        const ms = state.end.time_since(state.start);
        if (this._fractal.picture && this._fractal.picture.paintable !== state.display.paintable)
            this._fractal.picture.paintable = state.display.paintable;
        this._title.subtitle = `${ms.toFixed(2)} ms GPU · ${width}×${height} · ${state.device.get_name()} · ${state.how} · ${state.display.path}`;
        this._title.tooltip_text = state.display.reason;
        this._outcome({frame: true});
        return ms;
    }

    // --render: N frames through _renderFrame, as interactive use makes them.
    async renderFrames() {
        const outcome = await this._readyPromise;
        if (outcome.error)
            throw new Error(outcome.error);
        const [width, height] = this._opts.render;
        const times = [];
        while (times.length < this._opts.frames) {
            if (!this._state)
                throw new Error('the GPU went away');
            this._inFlight = true;
            try {
                times.push(await this._renderFrame());
            } finally {
                this._inFlight = false;
            }
        }
        this._state.display.texture.save_to_png(this._opts.output);
        const sorted = [...times].sort((a, b) => a - b);
        const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]
            : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        const v = this._view;
        print(`view: cx=${v.cx} cy=${v.cy} scale=${v.scale} max_iter=${v.maxIter} julia=${v.julia ? 1 : 0}`);
        print(`device: ${describeDevice(this._state.device)}, kernel ${this._state.how}`);
        print(`display: ${this._state.display.path} (${this._state.display.reason})`);
        print(`saved ${this._opts.output} (${width}x${height})`);
        print(`median frame time: ${median.toFixed(3)} ms (GPU, ${times.length} frames of ${width}x${height})`);
    }

    // --self-test: what the window shows, once it has shown something.
    async selfTest() {
        await this._outcomePromise;
        // wait for a frame of the window to be drawn
        await new Promise(resolve => this._stack.add_tick_callback(() => {
            resolve();
            return GLib.SOURCE_REMOVE;
        }));
        const page = this._stack.visible_child_name;
        print(`self-test: mapped=${this.get_mapped()}`);
        print(`self-test: page=${page}`);
        print(`self-test: devices=${this._devices.get_n_items()}`);
        if (page === 'error') {
            print(`self-test: title=${this._status.title}`);
            print(`self-test: description=${this._status.description}`);
        } else {
            print(`self-test: subtitle=${this._title.subtitle}`);
            print(`self-test: display=${this._state.display.path}`);
            print(`self-test: display-reason=${this._state.display.reason}`);
        }
    }
});

// ------------------------------------------------------------ application

const FractalApp = GObject.registerClass(
class FractalApp extends Adw.Application {
    constructor(opts) {
        super({
            application_id: APP_ID,
            // test modes never hand over to a running instance
            flags: opts.render || opts.selfTest ? Gio.ApplicationFlags.NON_UNIQUE : Gio.ApplicationFlags.FLAGS_NONE,
        });
        this._opts = opts;
        this.exitStatus = 0;
        const quit = new Gio.SimpleAction({name: 'quit'});
        quit.connect('activate', () => this.quit());
        this.add_action(quit);
        this.set_accels_for_action('app.quit', ['<Control>q']);
    }

    vfunc_activate() {
        if (this.active_window) {
            this.active_window.present();
            return;
        }
        const window = new FractalWindow(this, this._opts);
        window.present();
        window.start();
        let job = null;
        if (this._opts.render)
            job = window.renderFrames();
        else if (this._opts.selfTest)
            job = window.selfTest();
        if (job) {
            // the test modes end the app themselves
            this.hold();
            job.catch(e => {
                printerr(`${PROGRAM}: ${e.message}`);
                this.exitStatus = 1;
            }).finally(() => {
                this.release();
                this.quit();
            });
        }
    }
});

let opts;
try {
    opts = parseArgs(System.programArgs);
} catch (e) {
    printerr(`${PROGRAM}: ${e.message}\n${usage()}`);
    System.exit(2);
}
registerResources();
const app = new FractalApp(opts);
const status = app.run([System.programInvocationName]);
System.exit(status || app.exitStatus);
