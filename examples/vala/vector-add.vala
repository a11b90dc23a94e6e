/* vector-add.vala: compile a kernel with NVRTC, launch it and check the result
 *
 * Build it against an installed GCuda with
 *
 *   valac --pkg gcuda-1 vector-add.vala
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const int N = 1000000;
const uint BLOCK = 256;

const string KERNEL = """
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
""";

/* The bytes of an array of floats (a view, not a copy) */
unowned uint8[] bytes_of (float[] values) {
    unowned uint8[] bytes = (uint8[]) values;
    bytes.length = values.length * (int) sizeof (float);
    return bytes;
}

void vector_add () throws GLib.Error {
    /* The primary context of the device chosen by CUDA_DEVICE,
     * ~/.cuda_device or the first device that works. */
    var context = GCuda.Context.get_default ();

    /* The one-liner: compile for the context's device (cached on disk, so
     * the next run does not even load NVRTC) and load the result. */
    var module = new GCuda.Module.from_source (context, KERNEL, null);
    var add = module.get_function ("add");

    var a = new float[N];
    var b = new float[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float) Random.next_double ();
        b[i] = (float) Random.next_double ();
    }

    size_t size = N * sizeof (float);
    var a_gpu = new GCuda.Buffer (context, size);
    var b_gpu = new GCuda.Buffer (context, size);
    var c_gpu = new GCuda.Buffer (context, size);
    a_gpu.upload (0, bytes_of (a));
    b_gpu.upload (0, bytes_of (b));

    /* In the order of the kernel's parameters; the launch checks them
     * against the kernel's parameter list. */
    var args = new GCuda.KernelArgs ();
    args.add_buffer (c_gpu);
    args.add_buffer (a_gpu);
    args.add_buffer (b_gpu);
    args.add_int32 (N);
    uint grid = (N + BLOCK - 1) / BLOCK;
    add.launch (grid, 1, 1, BLOCK, 1, 1, 0, null, args);

    /* A synchronous download waits for the kernel (same, legacy stream). */
    var result = c_gpu.download (0, size);
    if (result.get_size () != size)
        throw new GCuda.Error.FAILED ("downloaded %zu bytes, expected %zu", result.get_size (), size);
    unowned float[] c = (float[]) result.get_data ();
    c.length = N;

    /* IEEE single-precision addition is exact to the last bit on both sides. */
    double max_error = 0.0;
    for (int i = 0; i < N; i++) {
        float expected = a[i] + b[i];
        double err = (double) c[i] - (double) expected;
        if (err < 0)
            err = -err;
        if (!(err <= max_error))  /* also catches NaN */
            max_error = err.is_nan () ? double.INFINITY : err;
    }
    if (max_error != 0.0)
        throw new GCuda.Error.FAILED ("wrong result: max error %g (c[0] = %g, expected %g)",
                                      max_error, c[0], a[0] + b[0]);

    print ("vector-add: %d elements OK (max error %g)\n", N, max_error);
}

int main (string[] args) {
    try {
        vector_add ();
    } catch (GLib.Error e) {
        printerr ("vector-add: %s\n", e.message);
        return 1;
    }
    return 0;
}
