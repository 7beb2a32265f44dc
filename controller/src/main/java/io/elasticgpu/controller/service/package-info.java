/**
 * The controller as one running service: its configuration and the order its parts (the dashboard every replica
 * serves, the admission webhook, the leader's controller) start and stop in, for {@code egpu controller} and the local
 * cluster's demo alike. It wires the other packages of this module together and holds no logic of its own; nothing in
 * them may import it.
 */
package io.elasticgpu.controller.service;
