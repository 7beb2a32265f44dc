package io.elasticgpu.api.watch;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;

/**
 * What every informer of our long-running components does, set once here before it starts:
 *
 * <ul>
 *   <li><b>It keeps listing.</b> fabric8's default gives up on an informer whose first list fails (a timeout from an
 *       API server that is restarting or loaded), and a component waiting for that list would never be ready. It
 *       tries again with fabric8's back-off; only a refusal (401, 403: a right the component lacks, which trying
 *       again cannot give it) stops it, so that its start fails and says so.
 *   <li><b>It keeps no managedFields.</b> Server-side apply's field ownership, a map of maps per manager on every
 *       object, led a controller's heap in the soak (its maps of maps outnumbered every other object), and nothing of
 *       ours reads it. Each object is stored, and handed to the handlers, without it.
 * </ul>
 */
public final class Informers {

    private static final ExceptionHandler KEEP_LISTING = (started, t) -> !refused(t);

    private Informers() {}

    /** {@code informer}, not yet started, set as above. */
    public static <T extends HasMetadata> SharedIndexInformer<T> ours(SharedIndexInformer<T> informer) {
        informer.exceptionHandler(KEEP_LISTING);
        informer.itemStore(new WithoutManagedFields<>());
        return informer;
    }

    static boolean refused(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof KubernetesClientException k && (k.getCode() == 401 || k.getCode() == 403)) {
                return true;
            }
        }
        return false;
    }

    /** The informer's store, keyed as fabric8's own, each object put without its managedFields. */
    static final class WithoutManagedFields<T extends HasMetadata> extends BasicItemStore<T> {

        WithoutManagedFields() {
            super(Cache::metaNamespaceKeyFunc);
        }

        @Override
        public T put(String key, T obj) {
            if (obj.getMetadata() != null) {
                obj.getMetadata().setManagedFields(null);
            }
            return super.put(key, obj);
        }
    }
}
