// SPDX-License-Identifier: MIT
/*
 * mvgal-reduce: out[j] = the sum of data[j * 64 + k] for k < 64 and
 * j * 64 + k < n, one workgroup per output word (dispatch ceil(n / 64)
 * workgroups). The sum wraps modulo 2^32, so the order of the additions
 * does not change it. Used by mvgal-vulkan.c.
 */
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Data {
	uint data[];
};

layout(std430, set = 0, binding = 1) writeonly buffer Out {
	uint outv[];
};

layout(push_constant) uniform Push {
	uint n;
};

shared uint partial[64];

void main()
{
	uint k = gl_LocalInvocationID.x;
	uint i = gl_GlobalInvocationID.x;

	partial[k] = i < n ? data[i] : 0u;
	barrier();
	for (uint stride = 32u; stride > 0u; stride >>= 1) {
		if (k < stride)
			partial[k] += partial[k + stride];
		barrier();
	}
	if (k == 0u)
		outv[gl_WorkGroupID.x] = partial[0];
}
