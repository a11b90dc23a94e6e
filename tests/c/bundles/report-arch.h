/* found next to report-arch.cu: gcuda-compile searches the source's directory */
#define REPORT_ARCH_SCALE(a, x) ((a) * (x))
