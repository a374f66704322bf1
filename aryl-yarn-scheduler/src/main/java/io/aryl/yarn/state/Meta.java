package io.aryl.yarn.state;

/**
 * What the stored state says of itself: the section {@link Section#META}.
 *
 * @param version format of the stored state; a newer one than this Aryl knows stops the start
 * @param originMs epoch milliseconds the planning clock counts from: jobs' waits survive a restart
 */
public record Meta(int version, long originMs) {}
