/** Small pieces for watching the API server through fabric8 informers, shared by the components. */
package io.elasticgpu.api.watch;
