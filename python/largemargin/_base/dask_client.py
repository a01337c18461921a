"""The Dask client an estimator with ``backend="dask"`` works through: given, the current one, or
opened from a scheduler address (then closed by the estimator when its fit ends). A fitted
estimator never keeps a live client: it cannot be pickled."""


def dask_client(client):
    """(client, opened here) for an estimator's ``client`` parameter."""
    try:
        import distributed
    except ImportError as e:
        raise ImportError("backend='dask' needs dask.distributed: pip install 'largemargin[dask]'") from e
    own = False
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError as e:
            raise ValueError("backend='dask' needs a dask.distributed Client: pass client= or create one first") from e
    elif isinstance(client, str):
        try:
            client, own = distributed.Client(client, set_as_default=False), True
        except OSError as e:
            raise ValueError(f"cannot reach the Dask scheduler at client={client!r}: {e}") from e
    elif not isinstance(client, distributed.Client):
        raise ValueError(f"client must be a dask.distributed Client, a scheduler address or None, got {client!r}")
    if getattr(client, "status", "running") != "running":
        if own:
            client.close()
        raise ValueError(f"the Dask client {client!r} is {client.status}: pass a running Client or a scheduler address")
    return client, own


def without_client(state):
    """An estimator's pickled state with a live client left out (an address string stays): the
    unpickled estimator uses the current client."""
    state = dict(state)
    if not (state.get("client") is None or isinstance(state["client"], str)):
        state["client"] = None
    return state
