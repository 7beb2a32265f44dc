/**
 * The JUnit 5 side of the harness: one real control plane per test run, and per test a client and a fresh
 * namespace. It must never import component code.
 */
package io.elasticgpu.e2e.junit;
