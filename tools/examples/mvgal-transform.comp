// SPDX-License-Identifier: MIT
/*
 * mvgal-transform: data[i] = data[i] * 3 + i for every i < n, in place.
 * uint arithmetic wraps modulo 2^32, as in C. Used by mvgal-vulkan.c.
 */
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Data {
	uint data[];
};

layout(push_constant) uniform Push {
	uint n;
};

void main()
{
	uint i = gl_GlobalInvocationID.x;

	if (i < n)
		data[i] = data[i] * 3u + i;
}
