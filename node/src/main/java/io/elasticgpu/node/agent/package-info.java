/**
 * The node agent assembled: configuration, and the wiring of discovery, health, allocation, the device plugins and
 * inventory publishing into one process with one lifecycle. It holds no logic of its own beyond choosing what to
 * advertise.
 */
package io.elasticgpu.node.agent;
