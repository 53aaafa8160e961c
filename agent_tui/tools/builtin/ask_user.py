"""`AskUserQuestion`: the model asks the person a structured question, as Claude Code's tool does
(its input: 1–4 `questions`, each with a `question`, a short `header`, 2–4 `options` of `label`
and `description`, and `multiSelect`). The app shows a dialog answered with a number key or with
text typed as "Other" (`ui/screens/question.py`); the answers are the tool's result. A run with
no one to ask (headless `-p`) refuses it, so the model decides and says what it assumed."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_tui.tools.base import Tool, ToolContext, ToolOutput

NO_ONE = (
    "There is no one to ask: this run has no person at a screen (agent-tui -p). Don't ask; "
    "choose what seems best, say what you assumed in your answer, and go on."
)
DECLINED = "The user declined to answer your questions. Go on without their answers, or stop."


class QuestionOption(BaseModel):
    label: str = Field(
        min_length=1,
        description="The display text for this option that the user will see and select. "
        "Should be concise (1-5 words) and clearly describe the choice.",
    )
    description: str = Field(
        description="Explanation of what this option means or what will happen if chosen. "
        "Useful for providing context about trade-offs or implications."
    )


class Question(BaseModel):
    question: str = Field(
        min_length=1,
        description="The complete question to ask the user. Should be clear, specific, and "
        "end with a question mark.",
    )
    header: str = Field(
        description="Very short label displayed as a chip/tag (max 12 chars). Examples: "
        '"Auth method", "Library", "Approach".'
    )
    options: list[QuestionOption] = Field(
        min_length=2,
        max_length=4,
        description="The available choices for this question. Must have 2-4 options. There "
        "should be no 'Other' option: one is provided for typed text.",
    )
    multiSelect: bool = Field(  # Claude Code's spelling
        description="Set to true to allow the user to select multiple options instead of "
        "just one. Use when choices are not mutually exclusive."
    )

    @model_validator(mode="after")
    def _distinct(self) -> Question:
        labels = [o.label for o in self.options]
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must be unique within a question")
        return self


class AskUserQuestionInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[Question] = Field(
        min_length=1, max_length=4, description="Questions to ask the user (1-4 questions)"
    )
    answers: dict[str, str] | None = Field(
        default=None, description="User answers collected by the permission component"
    )

    @model_validator(mode="after")
    def _distinct(self) -> AskUserQuestionInput:
        texts = [q.question for q in self.questions]
        if len(set(texts)) != len(texts):
            raise ValueError("question texts must be unique")
        return self


def answers_text(answers: dict[str, str]) -> str:
    """The result the model reads (Claude Code's wording)."""
    pairs = ", ".join(f'"{q}"="{a}"' for q, a in answers.items())
    return (
        f"User has answered your questions: {pairs}. You can now continue with the user's "
        "answers in mind."
    )


class AskUserQuestionTool(Tool):
    name: ClassVar[str] = "AskUserQuestion"
    order: ClassVar[int] = 80
    description: ClassVar[str] = (
        "Use this tool when you need to ask the user questions during execution. This allows "
        "you to: 1. gather user preferences or requirements, 2. clarify ambiguous "
        "instructions, 3. get decisions on implementation choices as you work, 4. offer "
        "choices to the user about what direction to take.\n\nUsage notes:\n- Users will always "
        'be able to select "Other" to provide custom text input\n- Use multiSelect: true to '
        "allow multiple answers to be selected for a question\n- If you recommend a specific "
        'option, make that the first option in the list and add "(Recommended)" at the end of '
        "the label"
    )
    input_model: ClassVar[type[BaseModel]] = AskUserQuestionInput
    # It changes nothing: allowed in plan mode (to settle a plan's open questions), never asks.
    read_only: ClassVar[bool] = True

    async def run(self, params: Any, ctx: ToolContext) -> ToolOutput:
        if ctx.ask_user is None:
            return ToolOutput(NO_ONE, is_error=True, summary="no one to ask")
        questions = [q.model_dump() for q in params.questions]
        answers = await ctx.ask_user(questions)
        if answers is None:
            return ToolOutput(DECLINED, summary="not answered")
        summary = "; ".join(f"{q['header'] or q['question']}: {answers.get(q['question'], '')}"
                            for q in questions)  # fmt: skip
        return ToolOutput(answers_text(answers), summary=summary, meta={"answers": answers})
