package io.elasticgpu.scheduler.cache;

/** What the cache knows of a pod: bound or waiting; deleted, Succeeded or Failed; or never seen (informers lag). */
public enum PodPresence {
    LIVE,
    GONE,
    UNKNOWN
}
