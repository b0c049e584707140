"""An LLM pipeline: xcs.vmap over a list of prompts (orchestration: a thread pool, results
in order), with a registered provider (here deterministic, no network).
Run: python3 examples/llm_pipeline.py"""

import xcs

xcs.providers.register("shout", lambda model, prompt: f"[{model}] {prompt.upper()}", timeout=5.0)


def answer(question):
    prompt = xcs.format("Answer briefly: {}", question)
    return xcs.llm(prompt, model="tiny", provider="shout")


questions = ["what is xcs?", "why compile python?", "how many cores?"]
print("== analyze_operations(answer):", xcs.analyze_operations(answer))
for q, a in zip(questions, xcs.vmap(answer, max_concurrency=16)(questions)):
    print(f"   {q!r} -> {a!r}")
print("== traced with xcs.jit:")
print(xcs.jit(answer).lower("q").as_text())
