package io.elasticgpu.api.watch;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;

/**
 * An informer handler that runs one action on every add, update and delete, for the components that rebuild what
 * they derive from the informer's store rather than follow each event.
 */
public record OnChange<T>(Runnable action) implements ResourceEventHandler<T> {

    public OnChange {
        requireNonNull(action, "action");
    }

    @Override
    public void onAdd(T obj) {
        action.run();
    }

    @Override
    public void onUpdate(T oldObj, T newObj) {
        action.run();
    }

    @Override
    public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        action.run();
    }
}
