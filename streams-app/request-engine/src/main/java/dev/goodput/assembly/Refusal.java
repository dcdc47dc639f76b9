package dev.goodput.assembly;

/** Why an event is refused: a short reason (the DLQ's and the windows' key) and a message for people. */
public record Refusal(String reason, String message) {
}
