// fractal.cu: the Mandelbrot and Julia sets, one thread per pixel.
//
// Each pixel gets the number of iterations before |z| > 2 (escape time),
// coloured with a 16-entry palette (black inside the set). The centre of
// pixel (px, py) is at
//     x = cx + (px + 0.5 - width / 2) * scale
//     y = cy - (py + 0.5 - height / 2) * scale
// (y grows upwards). The test of the example app computes the same in numpy
// (examples/gtk/check-fractal.py); keep both in step.
//
// Written with extern "C" itself, so that the name is "fractal" whether the
// kernel comes prebuilt from gcuda-compile or from NVRTC at run time (the
// app compiles it with no_extern_c).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

__constant__ unsigned char fractal_palette[16][3] = {
    { 66,  30,  15}, { 25,   7,  26}, {  9,   1,  47}, {  4,   4,  73},
    {  0,   7, 100}, { 12,  44, 138}, { 24,  82, 177}, { 57, 125, 209},
    {134, 181, 229}, {211, 236, 248}, {241, 233, 191}, {248, 201,  95},
    {255, 170,   0}, {204, 128,   0}, {153,  87,   0}, {106,  52,   3},
};

extern "C" __global__ void
fractal (unsigned char *pixels,   // width * height RGBA bytes, row stride width * 4
         int width, int height,
         double cx, double cy, double scale,
         int max_iter,
         int julia,               // 0: Mandelbrot; else Julia of (jx, jy)
         double jx, double jy)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;

    double x0 = cx + ((double) px + 0.5 - 0.5 * (double) width) * scale;
    double y0 = cy - ((double) py + 0.5 - 0.5 * (double) height) * scale;
    double x, y, c_re, c_im;
    if (julia) {
        x = x0; y = y0; c_re = jx; c_im = jy;
    } else {
        x = 0.0; y = 0.0; c_re = x0; c_im = y0;
    }

    int n = 0;
    while (n < max_iter && x * x + y * y <= 4.0) {
        double xt = x * x - y * y + c_re;
        y = 2.0 * x * y + c_im;
        x = xt;
        n++;
    }

    unsigned char *p = pixels + ((size_t) py * width + px) * 4;
    if (n >= max_iter) {
        p[0] = 0; p[1] = 0; p[2] = 0;
    } else {
        const unsigned char *c = fractal_palette[n % 16];
        p[0] = c[0]; p[1] = c[1]; p[2] = c[2];
    }
    p[3] = 255;
}
