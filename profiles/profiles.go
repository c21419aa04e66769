// Package profiles wraps NVIDIA Nsight Systems captures (launch and session modes),
// parses `nsys stats` CSV tables, classifies GPU kernels and writes them as pprof
// profiles. It imports plan (and sweep's hook interfaces) only.
package profiles
