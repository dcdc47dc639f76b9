package dev.goodput.contract.load;

import java.util.List;

import dev.goodput.config.ConfigException;

/** A contract file that cannot be used; each problem names the field path and what is expected. */
public final class ContractException extends ConfigException {
    private static final long serialVersionUID = 1L;

    public ContractException(String source, List<String> problems) {
        super("contract", source, problems);
    }
}
