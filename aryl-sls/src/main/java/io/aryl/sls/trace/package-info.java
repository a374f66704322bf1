/**
 * From a public GPU trace to SLS's inputs: {@link io.aryl.sls.trace.SlsTraceWriter} turns trace
 * jobs into SLS JSON jobs (in {@link io.aryl.sls.SlsJobFormat}) and writes a node file; {@link
 * io.aryl.sls.trace.SlsTraceCommand} does it for a slice of the Microsoft ITP trace from the
 * command line.
 */
package io.aryl.sls.trace;
