/**
 * The read-only cluster-wide GPU view behind {@code egpu inspect}: which pod holds which share of which card (what it
 * is granted) and what it uses there, built from node inventories, pod allocations, DRA claims and the node agents'
 * usage measurements, with its table, JSON and YAML renderings. It is a pure function of the
 * objects it is given and must never import the fabric8 client (it takes model objects only) or any scheduler or
 * node-agent package.
 */
package io.elasticgpu.controller.view;
