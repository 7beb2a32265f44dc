package io.elasticgpu.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;

/**
 * Leaves out the modules' test jars ({@code *-tests.jar}), which the harness depends on: ArchUnit's
 * {@link ImportOption.DoNotIncludeTests} knows test-class folders, not a test jar on the class path, and a test
 * fake would otherwise count as main code of its package.
 */
final class DoNotIncludeTestJars implements ImportOption {

    @Override
    public boolean includes(Location location) {
        return !location.contains("-tests.jar");
    }
}
