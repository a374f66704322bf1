/**
 * Aryl under Hadoop's Scheduler Load Simulator (hadoop-sls): the scheduler wrapper, the elastic AM
 * simulator.
 */
package io.aryl.sls;
