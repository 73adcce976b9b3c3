import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ExpressionTesterService } from '@meridian/application';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { ExpressionFunctionDto, TestExpressionDto, TestExpressionResultDto } from './dto/expression.dto';

/** The expression playground and function reference for mapping authors. */
@ApiTags('Expressions')
@Controller('api/v1/synchronisation')
@AdminEndpoint()
export class ExpressionsController {
  constructor(private readonly tester: ExpressionTesterService) {}

  @Post('test-expression')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Evaluate an expression against sample values',
    description:
      'A compile error is a 400 VALIDATION_ERROR with the line and column in details (as when a mapping is saved); ' +
      'an evaluation error (e.g. division by zero) is a 200 whose `error` holds the message and position. Nothing is stored.',
  })
  @ApiOkResponse({ type: TestExpressionResultDto })
  @ApiErrors(400)
  test(@Body() body: TestExpressionDto) {
    return this.tester.test(body);
  }

  @Get('expression-functions')
  @ApiOperation({ summary: 'List the functions of the expression language' })
  @ApiOkResponse({ type: [ExpressionFunctionDto] })
  functions() {
    return this.tester.functions();
  }
}
