/**
 * Making kube-scheduler retry the pods the extender turned away once capacity frees up. kube-scheduler retries such
 * a pod on its next cluster event, but its informers and the extender's race: the retry can come before the
 * extender's cache has seen the deletion that freed the card, and then the pod waits for an unrelated event, up to
 * five minutes. An annotation on the node, written after the extender's cache saw the change, is an event that
 * comes after it.
 */
package io.elasticgpu.scheduler.requeue;
