package io.aryl.api;

/**
 * The body of every refusal the scheduler's resource answers ({@code 400}, {@code 401}, {@code
 * 403}, {@code 404}, {@code 503}): {@code {"error": "..."}}, the reason in one line, naming the
 * field and the value when a request was wrong. A {@code 409} to the loan controller carries more
 * ({@link io.aryl.api.loan.StaleTarget}).
 *
 * @param error what was refused, and why
 */
public record ErrorBody(String error) {}
