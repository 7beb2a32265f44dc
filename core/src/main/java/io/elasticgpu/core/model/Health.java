package io.elasticgpu.core.model;

/** Whether a card may take new work. Health can go both ways: a card that recovers becomes schedulable again. */
public enum Health {
    HEALTHY,
    UNHEALTHY
}
