/**
 * {@code ./egpu demo}: the local control plane with fake GPU nodes, Elastic GPU's extender, controller and webhook
 * running against it, a sample workload, and what {@code egpu inspect} shows of it. It only assembles the other
 * modules and must hold no scheduling or allocation logic of its own.
 */
package io.elasticgpu.localcluster.demo;
