/**
 * The {@code egpu} command line: one class per subcommand, each only parsing options, calling a component and
 * printing. It owns no scheduling logic.
 */
package io.elasticgpu.cli;
