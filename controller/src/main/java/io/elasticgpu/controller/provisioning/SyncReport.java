package io.elasticgpu.controller.provisioning;

/**
 * What one sync of the controller found to do and how its writes went.
 *
 * @param toCreate    ElasticGPUs it found missing
 * @param toUpdate    ElasticGPUs it found changed
 * @param toDelete    ElasticGPUs it found orphaned
 * @param claimWrites claim statuses it found out of date
 * @param conflicts   writes answered 409 or 404 (a cache behind the API server; the next event settles them)
 * @param failed      writes that failed otherwise (tried again by the next sync)
 * @param millis      how long it took
 */
public record SyncReport(
        int toCreate, int toUpdate, int toDelete, int claimWrites, int conflicts, int failed, long millis) {

    /** Whether it had anything to write. */
    public boolean wrote() {
        return toCreate + toUpdate + toDelete + claimWrites > 0;
    }

    @Override
    public String toString() {
        return ("ElasticGPUs %d to create, %d to update, %d to delete; %d claim statuses to write; %d conflicts,"
                        + " %d failed; %d ms")
                .formatted(toCreate, toUpdate, toDelete, claimWrites, conflicts, failed, millis);
    }
}
