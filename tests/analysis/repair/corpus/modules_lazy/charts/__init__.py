def render(data):
    from charts import backend  # heavy: imported on first use only

    return backend.draw(data)
